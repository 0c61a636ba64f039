// Writes the providers' settings into docs/configuration.md's table, from their definitions
// (lib/providers/registry.ts): name, default and meaning (each setting's describe()). Run after
// adding a provider or changing one's settings:
//   npx tsx --conditions=react-server scripts/provider-settings-docs.ts   (npm run docs:settings)
import fs from "node:fs";
import { SETTING_NAMES } from "../lib/config";
import { withProviderRows } from "../lib/providers/docs";
import { PROVIDERS } from "../lib/providers/registry";

const file = "docs/configuration.md";
fs.writeFileSync(file, withProviderRows(fs.readFileSync(file, "utf8"), PROVIDERS, SETTING_NAMES, "PROVIDERS_SYNC_SECONDS"));
