-- CreateTable
CREATE TABLE "WorkerHeartbeat" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "inProcess" BOOLEAN NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "beatAt" DATETIME NOT NULL
);
