-- CreateTable
CREATE TABLE "KeyCacheVersion" (
    "id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "KeyCacheVersion_pkey" PRIMARY KEY ("id")
);

-- The table is SQLite's (one schema for both databases); here its row stays at 0.
INSERT INTO "KeyCacheVersion" ("id", "version") VALUES (1, 0);

-- Cached API keys (lib/keys/key-cache.ts): any change to what a key lookup returns (a key's
-- revocation, its own markup, its hash or owner, a reseller's markup or revocation, a deleted
-- row, a TRUNCATE) is announced on the channel key_cache when the writer's transaction commits,
-- whoever the writer is (the app, the CLI, plain SQL). Every app process LISTENs on one
-- connection of its own and drops the entries named: 'k:<key id>', 'r:<reseller id>', or '*'
-- (all). lastUsedAt writes announce nothing.
CREATE FUNCTION "key_cache_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('key_cache', '*');
  ELSIF TG_TABLE_NAME = 'ApiKey' THEN
    PERFORM pg_notify('key_cache', 'k:' || OLD."id");
  ELSE
    PERFORM pg_notify('key_cache', 'r:' || OLD."id");
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "ApiKey_key_cache_update" AFTER UPDATE OF "revokedAt", "markupBps", "hash", "resellerId" ON "ApiKey"
  FOR EACH ROW
  WHEN (OLD."revokedAt" IS DISTINCT FROM NEW."revokedAt" OR OLD."markupBps" IS DISTINCT FROM NEW."markupBps"
    OR OLD."hash" IS DISTINCT FROM NEW."hash" OR OLD."resellerId" IS DISTINCT FROM NEW."resellerId")
  EXECUTE FUNCTION "key_cache_notify"();
CREATE TRIGGER "ApiKey_key_cache_delete" AFTER DELETE ON "ApiKey"
  FOR EACH ROW EXECUTE FUNCTION "key_cache_notify"();
CREATE TRIGGER "ApiKey_key_cache_truncate" AFTER TRUNCATE ON "ApiKey"
  FOR EACH STATEMENT EXECUTE FUNCTION "key_cache_notify"();

CREATE TRIGGER "Reseller_key_cache_update" AFTER UPDATE OF "markupBps", "revokedAt" ON "Reseller"
  FOR EACH ROW
  WHEN (OLD."markupBps" IS DISTINCT FROM NEW."markupBps" OR OLD."revokedAt" IS DISTINCT FROM NEW."revokedAt")
  EXECUTE FUNCTION "key_cache_notify"();
CREATE TRIGGER "Reseller_key_cache_delete" AFTER DELETE ON "Reseller"
  FOR EACH ROW EXECUTE FUNCTION "key_cache_notify"();
CREATE TRIGGER "Reseller_key_cache_truncate" AFTER TRUNCATE ON "Reseller"
  FOR EACH STATEMENT EXECUTE FUNCTION "key_cache_notify"();
