-- CreateTable
CREATE TABLE "ResellerBrand" (
    "resellerId" TEXT NOT NULL PRIMARY KEY,
    "displayName" TEXT,
    "accent" TEXT,
    "supportKind" TEXT,
    "supportValue" TEXT,
    "termsUrl" TEXT,
    "logo" BLOB,
    "logoType" TEXT,
    "logoHash" TEXT,
    "logoWidth" INTEGER,
    "logoHeight" INTEGER,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ResellerBrand_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
