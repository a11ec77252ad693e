// Package jsonfast decodes the JSON of the protocol's hot path — every
// frame's envelope, a session method's ordering key, a method's parameters —
// with github.com/segmentio/encoding/json, which decodes the same values as
// encoding/json at about a quarter of the cost, a sizeable part of a
// pipelined session.append (measured in docs/ARCHITECTURE.md, Measurements). Input it refuses is
// decoded again by
// encoding/json, so a refusal reads exactly as before and encoding/json
// stays the judge of what is valid (a test holds the two to the same
// answers on malformed and unusual input).
package jsonfast

import (
	"encoding/json"

	segjson "github.com/segmentio/encoding/json"
)

// maxFastBytes: encoding/json refuses nesting deeper than 10,000 levels,
// which the faster decoder accepts; an input that short cannot nest that
// deep, and a longer one is decoded by encoding/json alone.
const maxFastBytes = 10_000

// Unmarshal is json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	if len(data) <= maxFastBytes && segjson.Unmarshal(data, v) == nil {
		return nil
	}
	return json.Unmarshal(data, v)
}
