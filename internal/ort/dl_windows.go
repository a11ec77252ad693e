//go:build !cgo && windows

package ort

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// openLibrary loads lib and returns the address of OrtGetApiBase. The
// altered search path makes Windows look for the DLL's own dependencies in
// its folder first, where the platform package keeps them.
func openLibrary(lib string) (uintptr, error) {
	h, err := windows.LoadLibraryEx(lib, 0, windows.LOAD_WITH_ALTERED_SEARCH_PATH)
	if err != nil {
		return 0, fmt.Errorf("LoadLibraryEx: %w", err)
	}
	sym, err := windows.GetProcAddress(h, "OrtGetApiBase")
	if err != nil {
		return 0, fmt.Errorf("%s is not ONNX Runtime: %w", lib, err)
	}
	return sym, nil
}
