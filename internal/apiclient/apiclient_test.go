package apiclient

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

func TestParseBaseURL(t *testing.T) {
	tests := []struct {
		raw, want string
		ok        bool
	}{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"https://mem.example/", "https://mem.example", true},
		{"http://127.0.0.1:8080/kgmem//", "http://127.0.0.1:8080/kgmem", true},
		{"127.0.0.1:8080", "", false},
		{"ftp://host", "", false},
		{"http://", "", false},
		{"", "", false},
		{"http://[::1", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			u, err := ParseBaseURL(tc.raw)
			if !tc.ok {
				var fe *kgmem.FieldError
				if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "url" {
					t.Fatalf("ParseBaseURL(%q) = %v, %v; want an invalid url field", tc.raw, u, err)
				}
				return
			}
			if err != nil || u.String() != tc.want {
				t.Fatalf("ParseBaseURL(%q) = %v, %v; want %s", tc.raw, u, err, tc.want)
			}
		})
	}
}

func TestNewHTTPClient(t *testing.T) {
	c := NewHTTPClient(time.Minute)
	if c.Timeout != time.Minute {
		t.Errorf("timeout %s, want 1m", c.Timeout)
	}
	tr, ok := c.Transport.(*http.Transport)
	if !ok || tr.MaxIdleConnsPerHost != 64 {
		t.Errorf("transport %T, want an *http.Transport with 64 idle connections per host", c.Transport)
	}
}
