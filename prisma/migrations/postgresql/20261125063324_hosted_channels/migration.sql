-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "markupBps" INTEGER;

-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "accessTokenHash" TEXT,
ADD COLUMN     "channel" TEXT;

-- CreateTable
CREATE TABLE "Widget" (
    "id" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "markupBps" INTEGER,
    "allowedOrigins" TEXT NOT NULL DEFAULT '[]',
    "accent" TEXT NOT NULL DEFAULT '#4f46e5',
    "theme" TEXT NOT NULL DEFAULT 'light',
    "defaultFrom" TEXT,
    "defaultTo" TEXT,
    "defaultAmount" TEXT,
    "disabledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Widget_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Widget_resellerId_idx" ON "Widget"("resellerId");

-- CreateIndex
CREATE INDEX "Order_channel_resellerId_createdAt_idx" ON "Order"("channel", "resellerId", "createdAt");

-- AddForeignKey
ALTER TABLE "Widget" ADD CONSTRAINT "Widget_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- Orders made with a key before channels: the key is their channel.
UPDATE "Order" SET "channel" = 'key:' || "apiKeyId" WHERE "apiKeyId" IS NOT NULL;
