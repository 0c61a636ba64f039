-- CreateTable
CREATE TABLE "ResellerBrand" (
    "resellerId" TEXT NOT NULL,
    "displayName" TEXT,
    "accent" TEXT,
    "supportKind" TEXT,
    "supportValue" TEXT,
    "termsUrl" TEXT,
    "logo" BYTEA,
    "logoType" TEXT,
    "logoHash" TEXT,
    "logoWidth" INTEGER,
    "logoHeight" INTEGER,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ResellerBrand_pkey" PRIMARY KEY ("resellerId")
);

-- AddForeignKey
ALTER TABLE "ResellerBrand" ADD CONSTRAINT "ResellerBrand_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE CASCADE ON UPDATE CASCADE;
