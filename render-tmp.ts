import { writeFileSync } from 'node:fs';
import { loadPack } from './pack/pack';
import { renderHelper } from './snippets/helper';
const [client, out, flavor] = process.argv.slice(2);
writeFileSync(out, renderHelper(client, loadPack(), flavor ? { flavor } : {}).text);
