// Package ort runs ONNX models with an ONNX Runtime shared library loaded at
// run time. It has one job: hand int64 input tensors to a session and give
// back its float32 output. What the model sees — tokens, batches, pooling —
// is decided by the caller (the local embedder in internal/embed), so every
// build feeds the model the same tensors.
//
// Map:
//   - ort.go     the API: Load (once per process), NewSession, Session.Run, LibraryName.
//   - cgo.go     the backend for cgo builds, on github.com/yalue/onnxruntime_go.
//   - purego.go  the backend for CGO_ENABLED=0 builds (every cross-compiled
//     release binary), calling the ORT C API through github.com/ebitengine/purego.
//   - capi.go    the C API's function-table slots purego.go calls, checked
//     against onnxruntime_c_api.h by capi_test.go.
//   - dl_unix.go, dl_windows.go  opening the library and finding OrtGetApiBase.
//
// The two backends are proven to agree: cmd/somni-sidecar's test builds the
// sidecar both ways and compares the vectors they embed.
package ort
