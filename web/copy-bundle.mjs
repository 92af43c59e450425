// Build step for the board page (run with `npm ci && npm run build` from web/):
// copies mqtt.js's prebuilt browser bundle into the hub package and writes a
// manifest naming the version and the bundle's sha256, so a test can check the
// checked-in bundle is exactly the one the lockfile pins.
import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, "node_modules", "mqtt");
const version = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;
const lock = JSON.parse(readFileSync(join(here, "package-lock.json"), "utf8"));
const locked = lock.packages["node_modules/mqtt"].version;
if (version !== locked) {
  throw new Error(`installed mqtt ${version} differs from the lockfile's ${locked}: run npm ci`);
}
const staticDir = join(here, "..", "hub", "risktable", "web", "static");
const target = join(staticDir, "mqtt.min.js");
copyFileSync(join(pkgDir, "dist", "mqtt.min.js"), target);
const sha256 = createHash("sha256").update(readFileSync(target)).digest("hex");
const manifest = { package: "mqtt", version, file: "mqtt.min.js", sha256 };
writeFileSync(join(staticDir, "mqtt-bundle.json"), JSON.stringify(manifest, null, 1) + "\n");
console.log(`copied mqtt ${version} browser bundle (sha256 ${sha256})`);
