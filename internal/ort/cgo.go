//go:build cgo

package ort

import (
	"fmt"

	ortgo "github.com/yalue/onnxruntime_go"
)

const backendName = "onnxruntime_go"

func loadBackend(lib string) error {
	ortgo.SetSharedLibraryPath(lib)
	if err := ortgo.InitializeEnvironment(ortgo.WithLogLevelError()); err != nil {
		// onnxruntime_go asks for ORT API 24, so ORT < 1.24 fails here.
		return fmt.Errorf("%w (this build needs ONNX Runtime ≥ 1.24)", err)
	}
	return nil
}

type cgoSession struct{ s *ortgo.DynamicAdvancedSession }

func newBackendSession(model []byte, inputs, outputs []string, o Options) (sessionImpl, error) {
	opts, err := ortgo.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(o.IntraOpThreads); err != nil {
		return nil, fmt.Errorf("ort: intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(o.InterOpThreads); err != nil {
		return nil, fmt.Errorf("ort: inter-op threads: %w", err)
	}
	s, err := ortgo.NewDynamicAdvancedSessionWithONNXData(model, inputs, outputs, opts)
	if err != nil {
		return nil, fmt.Errorf("ort: create session: %w", err)
	}
	return cgoSession{s}, nil
}

func (c cgoSession) run(inputs []Int64Tensor) (Float32Tensor, error) {
	vals := make([]ortgo.Value, 0, len(inputs))
	defer func() {
		for _, v := range vals {
			v.Destroy()
		}
	}()
	for i, in := range inputs {
		t, err := ortgo.NewTensor(ortgo.NewShape(in.Shape...), in.Data)
		if err != nil {
			return Float32Tensor{}, fmt.Errorf("ort: input %d tensor: %w", i, err)
		}
		vals = append(vals, t)
	}
	out := []ortgo.Value{nil}
	if err := c.s.Run(vals, out); err != nil {
		return Float32Tensor{}, fmt.Errorf("ort: run: %w", err)
	}
	defer out[0].Destroy()
	t, ok := out[0].(*ortgo.Tensor[float32])
	if !ok {
		return Float32Tensor{}, fmt.Errorf("ort: output is %T, want a float32 tensor", out[0])
	}
	return Float32Tensor{Shape: append([]int64(nil), t.GetShape()...), Data: append([]float32(nil), t.GetData()...)}, nil
}

func (c cgoSession) close() error {
	if err := c.s.Destroy(); err != nil {
		return fmt.Errorf("ort: close session: %w", err)
	}
	return nil
}
