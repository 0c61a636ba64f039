-- CreateIndex
CREATE INDEX "WebhookDelivery_messageId_idx" ON "WebhookDelivery"("messageId");

-- CreateIndex
CREATE INDEX "WebhookMessage_createdAt_id_idx" ON "WebhookMessage"("createdAt", "id");
