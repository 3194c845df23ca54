// Writes the files generated from the typed sources (see cli/generated.ts). Run through `npm run gen`, after a build.
import { writeFileSync } from 'node:fs';
import { generatedFiles } from '../dist/cli/generated.js';

for (const [path, content] of Object.entries(generatedFiles())) {
  writeFileSync(new URL(`../${path}`, import.meta.url), content);
  console.log(`wrote ${path}`);
}
