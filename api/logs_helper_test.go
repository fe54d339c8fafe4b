package api_test

import (
	"io"
	"log/slog"
)

// slogText is the server's default log: text at info level.
func slogText(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
