package ort

// The ONNX Runtime C API is a table of function pointers (struct OrtApi)
// whose slots are append-only across releases, so a slot's index names the
// same function in every runtime that has it. These are the slots purego.go
// calls, counted in onnxruntime_c_api.h (ORT_API_VERSION 24, as vendored by
// github.com/yalue/onnxruntime_go v1.27.0); capi_test.go recounts them there.
// Every one of them was in the table from API version 1 on.
const (
	slotGetErrorMessage                = 2
	slotCreateEnv                      = 3
	slotDisableTelemetryEvents         = 6
	slotCreateSessionFromArray         = 8
	slotRun                            = 9
	slotCreateSessionOptions           = 10
	slotSetIntraOpNumThreads           = 24
	slotSetInterOpNumThreads           = 25
	slotCreateTensorAsOrtValue         = 48
	slotGetTensorMutableData           = 51
	slotGetTensorElementType           = 60
	slotGetDimensionsCount             = 61
	slotGetDimensions                  = 62
	slotGetTensorTypeAndShape          = 65
	slotGetAllocatorWithDefaultOptions = 78
	slotReleaseEnv                     = 92
	slotReleaseStatus                  = 93
	slotReleaseSession                 = 95
	slotReleaseValue                   = 96
	slotReleaseTensorTypeAndShapeInfo  = 99
	slotReleaseSessionOptions          = 100
)

// capiSlots maps each slot to its name in the header (for capi_test.go).
var capiSlots = map[string]int{
	"GetErrorMessage":                slotGetErrorMessage,
	"CreateEnv":                      slotCreateEnv,
	"DisableTelemetryEvents":         slotDisableTelemetryEvents,
	"CreateSessionFromArray":         slotCreateSessionFromArray,
	"Run":                            slotRun,
	"CreateSessionOptions":           slotCreateSessionOptions,
	"SetIntraOpNumThreads":           slotSetIntraOpNumThreads,
	"SetInterOpNumThreads":           slotSetInterOpNumThreads,
	"CreateTensorAsOrtValue":         slotCreateTensorAsOrtValue,
	"GetTensorMutableData":           slotGetTensorMutableData,
	"GetTensorElementType":           slotGetTensorElementType,
	"GetDimensionsCount":             slotGetDimensionsCount,
	"GetDimensions":                  slotGetDimensions,
	"GetTensorTypeAndShape":          slotGetTensorTypeAndShape,
	"GetAllocatorWithDefaultOptions": slotGetAllocatorWithDefaultOptions,
	"ReleaseEnv":                     slotReleaseEnv,
	"ReleaseStatus":                  slotReleaseStatus,
	"ReleaseSession":                 slotReleaseSession,
	"ReleaseValue":                   slotReleaseValue,
	"ReleaseTensorTypeAndShapeInfo":  slotReleaseTensorTypeAndShapeInfo,
	"ReleaseSessionOptions":          slotReleaseSessionOptions,
}

// C enum values used by purego.go (onnxruntime_c_api.h).
const (
	cLoggingLevelError = 3 // ORT_LOGGING_LEVEL_ERROR
	cElemFloat         = 1 // ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT
	cElemInt64         = 7 // ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64
)

// capiVersion is the API version purego.go asks OrtGetApiBase for: the
// oldest that has every slot above, so any ONNX Runtime from 1.14 on serves
// it (GetApi(v) answers for every v up to the runtime's own). The runtimes
// shipped in the platform packages are all newer.
const capiVersion = 14
