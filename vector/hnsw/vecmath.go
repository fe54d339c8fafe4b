package hnsw

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/viterin/vek/vek32"
)

// dot is the inner product of two equal-length vectors (SIMD where available).
func dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return vek32.Dot(a, b)
}

// normalized returns a unit-length copy of v; a zero vector stays zero, so
// every similarity against it is 0 rather than NaN.
func normalized(v []float32) []float32 {
	return normalize(make([]float32, len(v)), v)
}

// normalizeInPlace scales v to unit length (a zero vector stays zero) and
// returns it: for vectors the index owns, such as ones just decoded.
func normalizeInPlace(v []float32) []float32 { return normalize(v, v) }

// normalize writes v scaled to unit length into out (which may be v) and
// returns out.
func normalize(out, v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// similarity is the cosine similarity of two unit (or zero) vectors, clamped
// to [-1, 1] against float rounding.
func similarity(a, b []float32) float64 {
	return min(1, max(-1, float64(dot(a, b))))
}

// encodeVector serialises v as little-endian float32s.
func encodeVector(v []float32) []byte {
	buf := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	return buf
}

// decodeVector parses what encodeVector wrote into v, checking that it holds
// len(v) floats, and returns v.
func decodeVector(v []float32, buf []byte) ([]float32, error) {
	if len(buf) != 4*len(v) {
		return nil, fmt.Errorf("stored vector has %d bytes, want %d for dimension %d", len(buf), 4*len(v), len(v))
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return v, nil
}
