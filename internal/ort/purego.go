//go:build !cgo

package ort

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

const backendName = "purego"

// capi holds the C API functions this package calls, bound once by
// loadBackend. Pointers to C objects are unsafe.Pointer; every function
// that can fail returns an OrtStatus* (nil on success).
type capiFuncs struct {
	getErrorMessage        func(status unsafe.Pointer) unsafe.Pointer
	releaseStatus          func(status unsafe.Pointer)
	createEnv              func(level int32, logID string, out *unsafe.Pointer) unsafe.Pointer
	disableTelemetry       func(env unsafe.Pointer) unsafe.Pointer
	createSessionOptions   func(out *unsafe.Pointer) unsafe.Pointer
	setIntraOpNumThreads   func(opts unsafe.Pointer, n int32) unsafe.Pointer
	setInterOpNumThreads   func(opts unsafe.Pointer, n int32) unsafe.Pointer
	releaseSessionOptions  func(opts unsafe.Pointer)
	createSessionFromArray func(env, data unsafe.Pointer, n uintptr, opts unsafe.Pointer, out *unsafe.Pointer) unsafe.Pointer
	releaseSession         func(s unsafe.Pointer)
	run                    func(s, runOpts unsafe.Pointer, inNames *unsafe.Pointer, in *unsafe.Pointer, nIn uintptr, outNames *unsafe.Pointer, nOut uintptr, out *unsafe.Pointer) unsafe.Pointer
	getAllocator           func(out *unsafe.Pointer) unsafe.Pointer
	createTensor           func(alloc unsafe.Pointer, shape *int64, rank uintptr, elem int32, out *unsafe.Pointer) unsafe.Pointer
	getTensorMutableData   func(v unsafe.Pointer, out *unsafe.Pointer) unsafe.Pointer
	getTensorTypeAndShape  func(v unsafe.Pointer, out *unsafe.Pointer) unsafe.Pointer
	getTensorElementType   func(info unsafe.Pointer, out *int32) unsafe.Pointer
	getDimensionsCount     func(info unsafe.Pointer, out *uintptr) unsafe.Pointer
	getDimensions          func(info unsafe.Pointer, dims *int64, n uintptr) unsafe.Pointer
	releaseTypeAndShape    func(info unsafe.Pointer)
	releaseValue           func(v unsafe.Pointer)
}

var (
	capi     capiFuncs
	ortEnvP  unsafe.Pointer // the process's OrtEnv, never released
	ortAlloc unsafe.Pointer // the default CPU allocator, owned by ORT
)

// loadBackend opens the library, takes the API table for capiVersion and
// binds the slots capi.go names, then creates the environment.
func loadBackend(lib string) error {
	sym, err := openLibrary(lib)
	if err != nil {
		return err
	}
	var getAPIBase func() unsafe.Pointer
	purego.RegisterFunc(&getAPIBase, sym)
	base := getAPIBase()
	if base == nil {
		return errors.New("OrtGetApiBase returned NULL")
	}
	// struct OrtApiBase { GetApi(uint32); GetVersionString(void); }
	var getAPI func(version uint32) unsafe.Pointer
	var version func() string
	purego.RegisterFunc(&getAPI, *(*uintptr)(base))
	purego.RegisterFunc(&version, *(*uintptr)(unsafe.Add(base, unsafe.Sizeof(uintptr(0)))))
	table := getAPI(capiVersion)
	if table == nil {
		return fmt.Errorf("ONNX Runtime %s does not serve C API version %d (need ≥ 1.14)", version(), capiVersion)
	}
	slot := func(i int) uintptr { return *(*uintptr)(unsafe.Add(table, uintptr(i)*unsafe.Sizeof(uintptr(0)))) }
	bind := []struct {
		fn   any
		slot int
	}{
		{&capi.getErrorMessage, slotGetErrorMessage},
		{&capi.releaseStatus, slotReleaseStatus},
		{&capi.createEnv, slotCreateEnv},
		{&capi.disableTelemetry, slotDisableTelemetryEvents},
		{&capi.createSessionOptions, slotCreateSessionOptions},
		{&capi.setIntraOpNumThreads, slotSetIntraOpNumThreads},
		{&capi.setInterOpNumThreads, slotSetInterOpNumThreads},
		{&capi.releaseSessionOptions, slotReleaseSessionOptions},
		{&capi.createSessionFromArray, slotCreateSessionFromArray},
		{&capi.releaseSession, slotReleaseSession},
		{&capi.run, slotRun},
		{&capi.getAllocator, slotGetAllocatorWithDefaultOptions},
		{&capi.createTensor, slotCreateTensorAsOrtValue},
		{&capi.getTensorMutableData, slotGetTensorMutableData},
		{&capi.getTensorTypeAndShape, slotGetTensorTypeAndShape},
		{&capi.getTensorElementType, slotGetTensorElementType},
		{&capi.getDimensionsCount, slotGetDimensionsCount},
		{&capi.getDimensions, slotGetDimensions},
		{&capi.releaseTypeAndShape, slotReleaseTensorTypeAndShapeInfo},
		{&capi.releaseValue, slotReleaseValue},
	}
	for _, b := range bind {
		fn := slot(b.slot)
		if fn == 0 {
			return fmt.Errorf("ONNX Runtime %s has no function in C API slot %d", version(), b.slot)
		}
		purego.RegisterFunc(b.fn, fn)
	}
	if err := status(capi.createEnv(cLoggingLevelError, "somni", &ortEnvP)); err != nil {
		return fmt.Errorf("create environment: %w", err)
	}
	// Telemetry only exists on Windows builds; elsewhere this is a no-op.
	_ = status(capi.disableTelemetry(ortEnvP))
	if err := status(capi.getAllocator(&ortAlloc)); err != nil {
		return fmt.Errorf("default allocator: %w", err)
	}
	return nil
}

// status turns an OrtStatus* into an error and releases it.
func status(st unsafe.Pointer) error {
	if st == nil {
		return nil
	}
	msg := goString(capi.getErrorMessage(st))
	capi.releaseStatus(st)
	return errors.New(msg)
}

// goString copies a NUL-terminated C string.
func goString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// cStrings holds NUL-terminated copies of names and the array of pointers
// to them that Run takes; it lives as long as the session, on the Go heap,
// which does not move.
type cStrings struct {
	bytes [][]byte
	ptrs  []unsafe.Pointer
}

func newCStrings(names []string) *cStrings {
	c := &cStrings{}
	for _, n := range names {
		b := append([]byte(n), 0)
		c.bytes = append(c.bytes, b)
		c.ptrs = append(c.ptrs, unsafe.Pointer(&b[0]))
	}
	return c
}

type puregoSession struct {
	s       unsafe.Pointer
	in, out *cStrings
}

func newBackendSession(model []byte, inputs, outputs []string, o Options) (sessionImpl, error) {
	if len(model) == 0 {
		return nil, errors.New("ort: empty model")
	}
	var opts unsafe.Pointer
	if err := status(capi.createSessionOptions(&opts)); err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	defer capi.releaseSessionOptions(opts)
	if err := status(capi.setIntraOpNumThreads(opts, int32(o.IntraOpThreads))); err != nil {
		return nil, fmt.Errorf("ort: intra-op threads: %w", err)
	}
	if err := status(capi.setInterOpNumThreads(opts, int32(o.InterOpThreads))); err != nil {
		return nil, fmt.Errorf("ort: inter-op threads: %w", err)
	}
	var s unsafe.Pointer
	err := status(capi.createSessionFromArray(ortEnvP, unsafe.Pointer(&model[0]), uintptr(len(model)), opts, &s))
	runtime.KeepAlive(model)
	if err != nil {
		return nil, fmt.Errorf("ort: create session: %w", err)
	}
	return &puregoSession{s: s, in: newCStrings(inputs), out: newCStrings(outputs)}, nil
}

// run copies each input into a tensor ORT allocates (so C never holds Go
// memory past a call), runs, and copies the output back out.
func (p *puregoSession) run(inputs []Int64Tensor) (Float32Tensor, error) {
	vals := make([]unsafe.Pointer, len(inputs))
	defer func() {
		for _, v := range vals {
			if v != nil {
				capi.releaseValue(v)
			}
		}
	}()
	for i, in := range inputs {
		v, err := newInt64Tensor(in)
		if err != nil {
			return Float32Tensor{}, fmt.Errorf("ort: input %d tensor: %w", i, err)
		}
		vals[i] = v
	}
	outs := make([]unsafe.Pointer, len(p.out.ptrs))
	err := status(capi.run(p.s, nil, &p.in.ptrs[0], &vals[0], uintptr(len(p.in.ptrs)), &p.out.ptrs[0], uintptr(len(outs)), &outs[0]))
	runtime.KeepAlive(p.in)
	runtime.KeepAlive(p.out)
	if err != nil {
		return Float32Tensor{}, fmt.Errorf("ort: run: %w", err)
	}
	defer func() {
		for _, v := range outs {
			if v != nil {
				capi.releaseValue(v)
			}
		}
	}()
	return readFloat32Tensor(outs[0])
}

func newInt64Tensor(t Int64Tensor) (unsafe.Pointer, error) {
	var v unsafe.Pointer
	var shape *int64
	if len(t.Shape) > 0 {
		shape = &t.Shape[0]
	}
	if err := status(capi.createTensor(ortAlloc, shape, uintptr(len(t.Shape)), cElemInt64, &v)); err != nil {
		return nil, err
	}
	if len(t.Data) > 0 {
		var data unsafe.Pointer
		if err := status(capi.getTensorMutableData(v, &data)); err != nil {
			capi.releaseValue(v)
			return nil, err
		}
		copy(unsafe.Slice((*int64)(data), len(t.Data)), t.Data)
	}
	return v, nil
}

func readFloat32Tensor(v unsafe.Pointer) (Float32Tensor, error) {
	var info unsafe.Pointer
	if err := status(capi.getTensorTypeAndShape(v, &info)); err != nil {
		return Float32Tensor{}, fmt.Errorf("ort: output shape: %w", err)
	}
	defer capi.releaseTypeAndShape(info)
	var elem int32
	if err := status(capi.getTensorElementType(info, &elem)); err != nil {
		return Float32Tensor{}, fmt.Errorf("ort: output type: %w", err)
	}
	if elem != cElemFloat {
		return Float32Tensor{}, fmt.Errorf("ort: output element type %d, want float32", elem)
	}
	var rank uintptr
	if err := status(capi.getDimensionsCount(info, &rank)); err != nil {
		return Float32Tensor{}, fmt.Errorf("ort: output rank: %w", err)
	}
	out := Float32Tensor{Shape: make([]int64, rank)}
	if rank > 0 {
		if err := status(capi.getDimensions(info, &out.Shape[0], rank)); err != nil {
			return Float32Tensor{}, fmt.Errorf("ort: output dims: %w", err)
		}
	}
	n := int64(1)
	for _, d := range out.Shape {
		n *= d
	}
	if n > 0 {
		var data unsafe.Pointer
		if err := status(capi.getTensorMutableData(v, &data)); err != nil {
			return Float32Tensor{}, fmt.Errorf("ort: output data: %w", err)
		}
		out.Data = append([]float32(nil), unsafe.Slice((*float32)(data), n)...)
	}
	return out, nil
}

func (p *puregoSession) close() error {
	if p.s != nil {
		capi.releaseSession(p.s)
		p.s = nil
	}
	return nil
}
