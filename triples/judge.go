package triples

import (
	"context"
	"errors"
)

// resolveWithLLM asks the LLM which stored candidate (if any) each ambiguous
// group names. It returns group index → chosen entity id ("" for none).
func (w *work) resolveWithLLM(ctx context.Context, ambiguous []*group) (map[int]string, error) {
	return nil, errors.New("not implemented")
}

// decidePending asks the LLM about the tentatively added facts.
func (w *work) decidePending(ctx context.Context, pending []pendingDecision) {}
