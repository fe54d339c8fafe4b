package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/kgmem/kgmem/bench/extract"
	"github.com/kgmem/kgmem/triples"
)

// runExtract is `bench extract`: the extraction benchmark against a real
// OpenAI-compatible endpoint (bench/extract).
func runExtract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("llm-base-url", os.Getenv("KGMEM_LLM_BASE_URL"), "chat endpoint base URL, e.g. http://127.0.0.1:18180/v1 ($KGMEM_LLM_BASE_URL)")
	model := fs.String("llm-model", os.Getenv("KGMEM_LLM_MODEL"), "model name ($KGMEM_LLM_MODEL)")
	key := fs.String("llm-api-key", os.Getenv("KGMEM_LLM_API_KEY"), "API key ($KGMEM_LLM_API_KEY)")
	mode := fs.String("llm-mode", "auto", "structured output: auto, json_schema, json_object or text")
	timeout := fs.Duration("llm-timeout", 2*time.Minute, "per call")
	prompt := fs.String("llm-prompt", "full", "extraction prompt: full or compact (for small local models)")
	window := fs.Int("llm-context", 0, "the model's context window in tokens (0: unknown)")
	maxTokens := fs.Int("llm-max-tokens", 0, "cap on each completion's tokens (0: the server's default)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	only := fs.String("run", "", "run only the cases whose name matches this regular expression")
	verbose := fs.Bool("v", false, "print each case's warnings")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *base == "" || *model == "" {
		return fmt.Errorf("--llm-base-url and --llm-model are required (scripts/llm.sh start prints a local one)")
	}
	x, err := triples.NewExtractor(triples.LLMConfig{BaseURL: *base, Model: *model, APIKey: *key, Mode: triples.Mode(*mode), Timeout: *timeout,
		PromptStyle: triples.PromptStyle(*prompt), ContextSize: *window, MaxTokens: *maxTokens})
	if err != nil {
		return err
	}
	cases, err := extract.Cases()
	if err != nil {
		return err
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return fmt.Errorf("--run: %w", err)
		}
		cases = slices.DeleteFunc(cases, func(c extract.Case) bool { return !re.MatchString(c.Name) })
		if len(cases) == 0 {
			return fmt.Errorf("--run %q matches no case", *only)
		}
	}
	rep := extract.Run(ctx, x, cases)
	rep.Model, rep.BaseURL = *model, *base
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "case\tmatched/expected\tpairs\textracted\tseconds\tmissed\textra\n")
	for _, c := range rep.Cases {
		note := ""
		if c.Error != "" {
			note = "  error: " + c.Error
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%.1f\t%v\t%v%s\n", c.Name, c.Matched, c.Expected, c.PairsMatched, c.Extracted, c.Seconds, c.Missed, c.Extra, note)
	}
	_ = tw.Flush()
	if *verbose {
		for _, c := range rep.Cases {
			for _, w := range c.Warnings {
				fmt.Fprintf(stdout, "%s: %s\n", c.Name, w)
			}
		}
	}
	fmt.Fprintf(stdout, "\n%s via %s (mode %s, prompt %s): precision %.2f, recall %.2f, F1 %.2f; %d cases failed\n",
		rep.Model, rep.BaseURL, rep.Mode, *prompt, rep.Precision, rep.Recall, rep.F1, rep.Failed)
	fmt.Fprintf(stdout, "subject and object right, any predicate: precision %.2f, recall %.2f, F1 %.2f\n", rep.PairPrecision, rep.PairRecall, rep.PairF1)
	fmt.Fprintf(stdout, "%d messages, %d calls, %.0f prompt tokens per call, %d completion tokens, %.2f s per message\n",
		rep.Messages, rep.Calls, rep.PromptTokensCall, rep.CompletionTokens, rep.SecondsPerMsg)
	return writeJSON(*jsonOut, rep)
}
