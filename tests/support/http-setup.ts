import { testDb } from "./api";
import { checkLedgerAfterFile } from "./ledger";

// Runs in every HTTP test file: whatever the file did, the ledger must still hold together.
checkLedgerAfterFile(testDb);
