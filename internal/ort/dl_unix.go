//go:build !cgo && (linux || darwin)

package ort

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// openLibrary dlopens lib and returns the address of OrtGetApiBase.
func openLibrary(lib string) (uintptr, error) {
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return 0, fmt.Errorf("dlopen: %w", err)
	}
	sym, err := purego.Dlsym(h, "OrtGetApiBase")
	if err != nil {
		return 0, fmt.Errorf("%s is not ONNX Runtime: %w", lib, err)
	}
	return sym, nil
}
