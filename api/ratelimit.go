package api

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// keyLimiter holds one token bucket per API key.
type keyLimiter struct {
	limit rate.Limit
	burst int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

// idleBucket is how long an unused bucket is kept (it is full again by then
// for any sane rate).
const idleBucket = 10 * time.Minute

func newKeyLimiter(perSecond float64, burst int) *keyLimiter {
	if burst < 1 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &keyLimiter{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// reserve takes a token for key, or reports how long until one is free.
func (l *keyLimiter) reserve(key string, now time.Time) (wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.lastSeen) > idleBucket {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.lastSeen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d
	}
	return 0
}

// rateLimit answers 429 with Retry-After when a stored key exceeds its rate.
// The admin key and an open (loopback, keyless) server are not limited.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	if s.limiter == nil {
		return next
	}
	return func(c echo.Context) error {
		p, ok := principal(c)
		if !ok || p.IsAdmin() || c.Request().Context().Value(inProcessKey{}) != nil {
			return next(c)
		}
		if wait := s.limiter.reserve(p.KeyID, time.Now()); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
			return echo.NewHTTPError(http.StatusTooManyRequests,
				fmt.Sprintf("API key %s exceeds %g requests per second (burst %d); retry in %d s", p.KeyID, float64(s.limiter.limit), s.limiter.burst, secs))
		}
		return next(c)
	}
}
