// Package embed holds somni's embedders: each turns texts into L2-normalised
// vectors behind the one Embedder interface (Embed, ID, Close), one file
// family per provider, as chromem-go lays out its embed_<provider>.go files.
// The index ranks with whatever New returns and keys its cache on the ID,
// so an ID changes exactly when the vectors would.
//
// What an embedder can do beyond that is an interface it implements, never
// something read from its ID: Calibrated (its cosine noise floor and span),
// QueryEmbedder (queries in another form than stored texts), TermWeighted
// (a query embedded with per-word weights), Degraded (not
// what was asked for, or no longer working), FileBacked (the model and
// runtime files it loaded), Readier (a background load to wait for),
// Noisy (scores the eval found too noisy for unprompted hints) and Described
// (what it is in a person's words, for ping and doctor). The helpers
// CalibrationOf, Degradation, Files, WaitReady, IsNoisy and Describe answer
// for embedders that do not implement one.
//
// Map:
//   - embed.go        the Embedder interface, Calibration and the capability
//     interfaces with their helpers; normalize; Dot, the cosine the index ranks by.
//   - config.go       Config (the --embed flags and SOMNI_EMBED_* environment)
//     and New, which falls back to hash when the local model cannot load.
//   - guard.go        Guard: an embedder as the ranking uses it, queries in
//     its query form or weighted, vectors checked (count, NaN/Inf), a
//     Backoff after a failure; and the calibration cosines are mapped with.
//   - embed_off.go    "off": no vectors, keyword recall only.
//   - embed_hash.go   "hash": signed feature hashing, pure Go, always there.
//   - embed_http.go   "http": an OpenAI-compatible /embeddings endpoint.
//   - embed_local.go  "local": an ONNX model run through internal/ort,
//     loaded in the background; the files below are its parts:
//   - local_config.go    which model a models/<name>/ folder holds, where the
//     ONNX Runtime library is.
//   - local_onnxinfo.go  the model's declared inputs and outputs, read from
//     the ONNX protobuf before a session is built.
//   - local_bert.go      BERT-family models: WordPiece tokenizer, pooling.
//   - local_spm.go       USE-lite's SentencePiece tokenizer.
//   - local_fuse.go      the USE-lite + hash-features hybrid vector.
//   - local_gloss.go     Chinese glossed into English with CC-CEDICT.
//   - local_calibrate.go a BERT model's floor and span measured on load.
//
// ONNX Runtime sits behind internal/ort, which serves cgo and CGO_ENABLED=0
// builds alike, so no file here carries a build tag.
package embed
