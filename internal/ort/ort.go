package ort

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
)

// LibraryName is the file name ONNX Runtime's shared library has on this OS,
// as the onnxruntime-node packages ship it.
var LibraryName = map[string]string{
	"linux":   "libonnxruntime.so.1",
	"darwin":  "libonnxruntime.dylib",
	"windows": "onnxruntime.dll",
}[runtime.GOOS]

// Backend names the binding this build talks to ONNX Runtime through:
// "onnxruntime_go" (cgo) or "purego" (no cgo).
const Backend = backendName

// Int64Tensor is one model input.
type Int64Tensor struct {
	Shape []int64
	Data  []int64
}

// Float32Tensor is a model output, copied out of ONNX Runtime's memory.
type Float32Tensor struct {
	Shape []int64
	Data  []float32
}

// Options tune a session; zero values mean 1 thread.
type Options struct {
	IntraOpThreads int
	InterOpThreads int
}

// Session is a loaded model. Run is safe for concurrent use; Close waits for
// nothing, so callers serialise Close against Run (the embedder holds a lock).
type Session struct {
	inputs []string // names, in the order Run takes the tensors
	impl   sessionImpl
}

// sessionImpl is what a backend provides.
type sessionImpl interface {
	run(inputs []Int64Tensor) (Float32Tensor, error)
	close() error
}

// env tracks the process-wide runtime: a library can be loaded once per
// process, so every session must agree on its path.
var env struct {
	mu   sync.Mutex
	path string
	err  error
}

// Load loads ONNX Runtime from lib and initialises its environment once per
// process. Loading a second, different file is an error; the same file again
// is a no-op that returns the first load's result.
func Load(lib string) error {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.path != "" {
		if env.err != nil {
			return env.err
		}
		if !sameFile(env.path, lib) {
			return fmt.Errorf("ort: ONNX Runtime already loaded from %s; cannot also load %s in one process", env.path, lib)
		}
		return nil
	}
	env.path = lib
	if err := loadBackend(lib); err != nil {
		env.err = fmt.Errorf("ort: load ONNX Runtime %s: %w", lib, err)
	}
	return env.err
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// NewSession builds a session from the model's bytes; inputs and outputs name
// the graph's tensors in the order Run takes and returns them. Load must have
// succeeded first.
func NewSession(model []byte, inputs, outputs []string, o Options) (*Session, error) {
	env.mu.Lock()
	loaded, err := env.path != "", env.err
	env.mu.Unlock()
	if !loaded {
		return nil, errors.New("ort: NewSession before Load")
	}
	if err != nil {
		return nil, err
	}
	if len(outputs) != 1 {
		return nil, fmt.Errorf("ort: %d outputs requested; this package reads exactly one", len(outputs))
	}
	o.IntraOpThreads = max(o.IntraOpThreads, 1)
	o.InterOpThreads = max(o.InterOpThreads, 1)
	impl, err := newBackendSession(model, inputs, outputs, o)
	if err != nil {
		return nil, err
	}
	return &Session{inputs: inputs, impl: impl}, nil
}

// Run feeds one tensor per input name and returns the single output.
func (s *Session) Run(inputs []Int64Tensor) (Float32Tensor, error) {
	if len(inputs) != len(s.inputs) {
		return Float32Tensor{}, fmt.Errorf("ort: %d inputs for a session of %d", len(inputs), len(s.inputs))
	}
	for i, t := range inputs {
		n := int64(1)
		for _, d := range t.Shape {
			n *= d
		}
		if n != int64(len(t.Data)) {
			return Float32Tensor{}, fmt.Errorf("ort: input %s has shape %v but %d values", s.inputs[i], t.Shape, len(t.Data))
		}
	}
	return s.impl.run(inputs)
}

// Close releases the session.
func (s *Session) Close() error { return s.impl.close() }
