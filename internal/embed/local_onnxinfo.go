package embed

import (
	"errors"
	"fmt"
)

// localONNXValue is one graph input or output as declared in an ONNX file.
type localONNXValue struct {
	Name string
	Rank int // -1 when the file does not declare a shape
}

// localONNXSignature lists a model's declared graph inputs and outputs.
type localONNXSignature struct {
	Inputs  []localONNXValue
	Outputs []localONNXValue
}

// localReadONNXSignature reads graph inputs/outputs straight from the ONNX
// protobuf bytes. onnxruntime_go's GetInputOutputInfo would build a whole
// extra session (loading every weight a second time) just to learn names.
// Initialisers listed among graph inputs (old exporters do that) are dropped,
// since they are not fed at run time.
func localReadONNXSignature(model []byte) (localONNXSignature, error) {
	var sig localONNXSignature
	graph, err := localPBField(model, 7) // ModelProto.graph
	if err != nil {
		return sig, fmt.Errorf("embed: onnx model: %w", err)
	}
	if graph == nil {
		return sig, errors.New("embed: onnx model: no graph")
	}
	inits := map[string]bool{}
	err = localPBEach(graph, func(field int, payload []byte) error {
		switch field {
		case 5: // GraphProto.initializer (TensorProto; name is field 8)
			name, err := localPBString(payload, 8)
			if err != nil {
				return err
			}
			inits[name] = true
		case 11, 12: // GraphProto.input, GraphProto.output (ValueInfoProto)
			v, err := localParseValueInfo(payload)
			if err != nil {
				return err
			}
			if field == 11 {
				sig.Inputs = append(sig.Inputs, v)
			} else {
				sig.Outputs = append(sig.Outputs, v)
			}
		}
		return nil
	})
	if err != nil {
		return sig, fmt.Errorf("embed: onnx graph: %w", err)
	}
	kept := sig.Inputs[:0]
	for _, in := range sig.Inputs {
		if !inits[in.Name] {
			kept = append(kept, in)
		}
	}
	sig.Inputs = kept
	return sig, nil
}

// localParseValueInfo reads ValueInfoProto{name=1, type=2{tensor_type=1{shape=2{dim=1*}}}}.
func localParseValueInfo(b []byte) (localONNXValue, error) {
	v := localONNXValue{Rank: -1}
	name, err := localPBString(b, 1)
	if err != nil {
		return v, err
	}
	v.Name = name
	typ, err := localPBField(b, 2)
	if err != nil || typ == nil {
		return v, err
	}
	tensor, err := localPBField(typ, 1)
	if err != nil || tensor == nil {
		return v, err
	}
	shape, err := localPBField(tensor, 2)
	if err != nil || shape == nil {
		return v, err
	}
	rank := 0
	err = localPBEach(shape, func(field int, _ []byte) error {
		if field == 1 {
			rank++
		}
		return nil
	})
	v.Rank = rank
	return v, err
}

// localPBField returns the payload of the first length-delimited field number
// want in msg, or nil when absent.
func localPBField(msg []byte, want int) ([]byte, error) {
	var found []byte
	err := localPBEach(msg, func(field int, payload []byte) error {
		if field == want && found == nil {
			found = payload
		}
		return nil
	})
	return found, err
}

func localPBString(msg []byte, want int) (string, error) {
	b, err := localPBField(msg, want)
	return string(b), err
}

// localPBEach walks the top-level fields of a protobuf message, calling fn
// for length-delimited ones and skipping the rest.
func localPBEach(msg []byte, fn func(field int, payload []byte) error) error {
	for i := 0; i < len(msg); {
		key, n := localPBVarint(msg[i:])
		if n <= 0 {
			return errors.New("truncated field key")
		}
		i += n
		field, wire := int(key>>3), key&7
		switch wire {
		case 0: // varint
			_, n := localPBVarint(msg[i:])
			if n <= 0 {
				return errors.New("truncated varint")
			}
			i += n
		case 1: // 64-bit
			i += 8
		case 5: // 32-bit
			i += 4
		case 2: // length-delimited
			l, n := localPBVarint(msg[i:])
			if n <= 0 || l > uint64(len(msg)-i-n) {
				return errors.New("bad length-delimited field")
			}
			i += n
			if err := fn(field, msg[i:i+int(l)]); err != nil {
				return err
			}
			i += int(l)
		default:
			return fmt.Errorf("unsupported wire type %d", wire)
		}
		if i > len(msg) {
			return errors.New("field runs past the end")
		}
	}
	return nil
}

// localPBVarint decodes a base-128 varint; n ≤ 0 means malformed.
func localPBVarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
