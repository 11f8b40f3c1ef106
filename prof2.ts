import { bigFile } from './bench/lint-corpus';
import { analyzeText } from './server/src/analysis';
(async () => {
  const f = bigFile('python', 10000);
  for (let r = 0; r < 15; r++) await analyzeText('python', f.text);
})();
