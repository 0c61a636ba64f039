-- CreateTable
CREATE TABLE "KeyCacheVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "version" INTEGER NOT NULL DEFAULT 0
);

-- Cached API keys (lib/keys/key-cache.ts): any change to what a key lookup returns (a key's
-- revocation, its own markup, its hash or owner, a reseller's markup or revocation, a deleted
-- row) raises the one version row, in the writer's own transaction, whoever the writer is
-- (the app, the CLI, another process, plain SQL). Each process reads the row before it uses a
-- cached key and drops its cache when the number moved. lastUsedAt writes leave it alone.
-- A migration that rebuilds ApiKey or Reseller (create, copy, drop, rename) drops these
-- triggers with the table: it must create them again.
INSERT INTO "KeyCacheVersion" ("id", "version") VALUES (1, 0);

CREATE TRIGGER "ApiKey_key_cache_update" AFTER UPDATE OF "revokedAt", "markupBps", "hash", "resellerId" ON "ApiKey"
WHEN OLD."revokedAt" IS NOT NEW."revokedAt" OR OLD."markupBps" IS NOT NEW."markupBps"
  OR OLD."hash" IS NOT NEW."hash" OR OLD."resellerId" IS NOT NEW."resellerId"
BEGIN
  UPDATE "KeyCacheVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;

CREATE TRIGGER "ApiKey_key_cache_delete" AFTER DELETE ON "ApiKey"
BEGIN
  UPDATE "KeyCacheVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;

CREATE TRIGGER "Reseller_key_cache_update" AFTER UPDATE OF "markupBps", "revokedAt" ON "Reseller"
WHEN OLD."markupBps" IS NOT NEW."markupBps" OR OLD."revokedAt" IS NOT NEW."revokedAt"
BEGIN
  UPDATE "KeyCacheVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;

CREATE TRIGGER "Reseller_key_cache_delete" AFTER DELETE ON "Reseller"
BEGIN
  UPDATE "KeyCacheVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
