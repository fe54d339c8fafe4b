package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kgmem/kgmem"
	"github.com/viterin/vek/vek32"
	"github.com/x448/float16"
)

// Files of a static embedding model directory, as scripts/embedder.sh
// writes them.
const (
	StaticConfigFile  = "config.json"
	StaticVectorsFile = "embeddings.safetensors"
	StaticVocabFile   = "vocab.txt"
)

// DefaultStaticDir is where scripts/embedder.sh installs the static model:
// ~/.cache/kgmem/embedder/minilm-l6-static-256 (relative to the working
// directory when there is no home directory).
func DefaultStaticDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	return filepath.Join(home, ".cache", "kgmem", "embedder", "minilm-l6-static-256")
}

// StaticVectorWeight is the weight a server gives the vector retriever in
// rank fusion when its embedder is the static one (against BM25's 1),
// chosen by `bench cv` over LoCoMo and LongMemEval together.
const StaticVectorWeight = 0.3

// StaticInstalled reports whether dir holds a static model's files.
func StaticInstalled(dir string) bool {
	for _, f := range []string{StaticConfigFile, StaticVectorsFile, StaticVocabFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// ErrNoModel is returned by LoadStatic when the model directory or one of
// its files is missing.
var ErrNoModel = errors.New("static embedding model not installed")

// StaticConfig describes a static embedding model (its config.json).
type StaticConfig struct {
	// Name identifies the model ("minilm-l6-static-256").
	Name string `json:"name"`
	// Dimension is the length of the vectors.
	Dimension int `json:"dimension"`
	// UnkToken is the vocabulary's unknown token ("[UNK]").
	UnkToken string `json:"unk_token"`
}

// Static is a static (token-level) embedding model: a text's vector is the
// L2-normalised mean of its WordPiece tokens' vectors, unknown tokens left
// out. Text with no known token gives the zero vector. It is safe for
// concurrent use.
type Static struct {
	cfg     StaticConfig
	tok     *WordPiece
	vectors []float32 // vocab × dim, row-major
	ids     sync.Pool // *[]int32
}

var _ kgmem.Embedder = (*Static)(nil)

// NewStatic builds a static embedder from a tokenizer and a row-major
// vocab×cfg.Dimension matrix of token vectors.
func NewStatic(cfg StaticConfig, tok *WordPiece, vectors []float32) (*Static, error) {
	if cfg.Dimension <= 0 {
		return nil, fmt.Errorf("static model %q: dimension %d", cfg.Name, cfg.Dimension)
	}
	if len(vectors)%cfg.Dimension != 0 {
		return nil, fmt.Errorf("static model %q: %d values are not rows of %d", cfg.Name, len(vectors), cfg.Dimension)
	}
	rows := len(vectors) / cfg.Dimension
	for _, m := range []map[string]int32{tok.starts, tok.conts} {
		for t, id := range m {
			if int(id) >= rows {
				return nil, fmt.Errorf("static model %q: token %q has id %d but the matrix has %d rows", cfg.Name, t, id, rows)
			}
		}
	}
	s := &Static{cfg: cfg, tok: tok, vectors: vectors}
	s.ids.New = func() any { b := make([]int32, 0, 256); return &b }
	return s, nil
}

// ReadStaticConfig reads the config.json of the static model in dir (its
// name, which names the vectors it makes, and dimension). A missing file
// wraps ErrNoModel.
func ReadStaticConfig(dir string) (StaticConfig, error) {
	var cfg StaticConfig
	raw, err := os.ReadFile(filepath.Join(dir, StaticConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, fmt.Errorf("%w: %s is missing", ErrNoModel, filepath.Join(dir, StaticConfigFile))
	}
	if err != nil {
		return cfg, fmt.Errorf("static model %s: %w", dir, err)
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("static model %s: %s: %w", dir, StaticConfigFile, err)
	}
	if cfg.UnkToken == "" {
		cfg.UnkToken = "[UNK]"
	}
	return cfg, nil
}

// LoadStatic reads a static embedding model from dir (config.json,
// vocab.txt and embeddings.safetensors with one float16 or float32 tensor
// "embeddings" of shape [vocab, dimension]). A missing file wraps
// ErrNoModel.
func LoadStatic(dir string) (*Static, error) {
	open := func(name string) (*os.File, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is missing", ErrNoModel, filepath.Join(dir, name))
		}
		return f, err
	}
	cfg, err := ReadStaticConfig(dir)
	if err != nil {
		return nil, err
	}
	vf, err := open(StaticVocabFile)
	if err != nil {
		return nil, err
	}
	tok, err := NewWordPiece(vf, cfg.UnkToken)
	vf.Close()
	if err != nil {
		return nil, fmt.Errorf("static model %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, StaticVectorsFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is missing", ErrNoModel, filepath.Join(dir, StaticVectorsFile))
	}
	raw, err := os.ReadFile(filepath.Join(dir, StaticVectorsFile))
	if err != nil {
		return nil, fmt.Errorf("static model %s: %w", dir, err)
	}
	vectors, rows, cols, err := readSafetensor(raw, "embeddings")
	if err != nil {
		return nil, fmt.Errorf("static model %s: %s: %w", dir, StaticVectorsFile, err)
	}
	if cols != cfg.Dimension {
		return nil, fmt.Errorf("static model %s: config says dimension %d, the matrix has %d columns", dir, cfg.Dimension, cols)
	}
	_ = rows
	return NewStatic(cfg, tok, vectors)
}

// WriteStatic writes a static model directory LoadStatic reads: cfg as
// config.json, vocab (the token of each row, in order) as vocab.txt, and
// rows, each of cfg.Dimension values, as float16 in embeddings.safetensors.
func WriteStatic(dir string, cfg StaticConfig, vocab []string, rows [][]float32) error {
	if len(vocab) != len(rows) {
		return fmt.Errorf("write static model: %d tokens for %d rows", len(vocab), len(rows))
	}
	var data []byte
	for i, r := range rows {
		if len(r) != cfg.Dimension {
			return fmt.Errorf("write static model: row %d has %d values, want %d", i, len(r), cfg.Dimension)
		}
		for _, x := range r {
			data = binary.LittleEndian.AppendUint16(data, float16.Fromfloat32(x).Bits())
		}
	}
	header, err := json.Marshal(map[string]any{
		"__metadata__": map[string]string{"name": cfg.Name},
		"embeddings":   map[string]any{"dtype": "F16", "shape": []int{len(rows), cfg.Dimension}, "data_offsets": []int{0, len(data)}},
	})
	if err != nil {
		return err
	}
	c, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	file := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	file = append(append(file, header...), data...)
	for name, b := range map[string][]byte{
		StaticConfigFile:  c,
		StaticVocabFile:   []byte(strings.Join(vocab, "\n") + "\n"),
		StaticVectorsFile: file,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("write static model: %w", err)
		}
	}
	return nil
}

// readSafetensor decodes the 2-D tensor name of a safetensors file (an
// 8-byte little-endian header length, a JSON header, the data) as float32.
func readSafetensor(raw []byte, name string) (data []float32, rows, cols int, err error) {
	if len(raw) < 8 {
		return nil, 0, 0, errors.New("too short for a safetensors file")
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > uint64(len(raw)-8) {
		return nil, 0, 0, fmt.Errorf("header of %d bytes in a file of %d", n, len(raw))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, 0, 0, fmt.Errorf("header: %w", err)
	}
	entry, ok := header[name]
	if !ok {
		return nil, 0, 0, fmt.Errorf("no tensor %q", name)
	}
	var t struct {
		Dtype   string   `json:"dtype"`
		Shape   []int    `json:"shape"`
		Offsets []uint64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(entry, &t); err != nil {
		return nil, 0, 0, fmt.Errorf("tensor %q: %w", name, err)
	}
	if len(t.Shape) != 2 || len(t.Offsets) != 2 || t.Shape[0] <= 0 || t.Shape[1] <= 0 {
		return nil, 0, 0, fmt.Errorf("tensor %q: shape %v, offsets %v: want a matrix", name, t.Shape, t.Offsets)
	}
	body := raw[8+n:]
	if t.Offsets[0] > t.Offsets[1] || t.Offsets[1] > uint64(len(body)) {
		return nil, 0, 0, fmt.Errorf("tensor %q: offsets %v outside %d bytes of data", name, t.Offsets, len(body))
	}
	b := body[t.Offsets[0]:t.Offsets[1]]
	rows, cols = t.Shape[0], t.Shape[1]
	count := rows * cols
	data = make([]float32, count)
	switch t.Dtype {
	case "F16":
		if len(b) != 2*count {
			return nil, 0, 0, fmt.Errorf("tensor %q: %d bytes for %d float16 values", name, len(b), count)
		}
		for i := range data {
			data[i] = float16.Frombits(binary.LittleEndian.Uint16(b[2*i:])).Float32()
		}
	case "F32":
		if len(b) != 4*count {
			return nil, 0, 0, fmt.Errorf("tensor %q: %d bytes for %d float32 values", name, len(b), count)
		}
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	default:
		return nil, 0, 0, fmt.Errorf("tensor %q: dtype %s, want F16 or F32", name, t.Dtype)
	}
	return data, rows, cols, nil
}

// Name identifies the model.
func (s *Static) Name() string { return s.cfg.Name }

// Dimension is the length of every vector.
func (s *Static) Dimension() int { return s.cfg.Dimension }

// Embed returns one unit vector (or the zero vector) per text.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*s.cfg.Dimension)
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = flat[i*s.cfg.Dimension : (i+1)*s.cfg.Dimension : (i+1)*s.cfg.Dimension]
		s.vector(out[i], text)
	}
	return out, nil
}

// vector writes text's embedding into v (zeroed, of length Dimension).
func (s *Static) vector(v []float32, text string) {
	bp := s.ids.Get().(*[]int32)
	ids := s.tok.Tokenize((*bp)[:0], text)
	dim := s.cfg.Dimension
	n := 0
	for _, id := range ids {
		if id == s.tok.unk {
			continue
		}
		vek32.Add_Inplace(v, s.vectors[int(id)*dim:int(id+1)*dim]) // SIMD where available
		n++
	}
	*bp = ids
	s.ids.Put(bp)
	if n == 0 {
		return
	}
	if norm := vek32.Dot(v, v); norm > 0 {
		vek32.MulNumber_Inplace(v, float32(1/math.Sqrt(float64(norm))))
	}
}
