package main

import (
	"io"
	"sync"

	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/schollz/progressbar/v3"
)

// progressBars draws one progress bar per run stage on w.
type progressBars struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	bars    map[locomo.Stage]*progressbar.ProgressBar
	// done is the highest count seen per stage: concurrent workers may report out of order.
	done map[locomo.Stage]int
}

func newProgressBars(w io.Writer, enabled bool) *progressBars {
	return &progressBars{w: w, enabled: enabled, bars: map[locomo.Stage]*progressbar.ProgressBar{}, done: map[locomo.Stage]int{}}
}

// update is a locomo.Config.Progress callback.
func (p *progressBars) update(stage locomo.Stage, done, total int) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	bar, ok := p.bars[stage]
	if !ok {
		unit := "msg"
		if stage == locomo.StageSearch {
			unit = "q"
		}
		bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(string(stage)),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionOnCompletion(func() { io.WriteString(p.w, "\n") }),
		)
		p.bars[stage] = bar
	}
	if done <= p.done[stage] {
		return
	}
	p.done[stage] = done
	_ = bar.Set(done) // only fails on a broken terminal; the run goes on
}

// finish closes the bars.
func (p *progressBars) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.bars {
		_ = b.Finish()
	}
}
