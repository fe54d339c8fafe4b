package faultproxy_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/faultproxy"
)

// echoServer answers every line with itself.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line and reads it back within a short deadline.
func roundTrip(c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "ping\n" {
		return errors.New("echo mismatch: " + line)
	}
	return nil
}

func TestModes(t *testing.T) {
	p, err := faultproxy.Start(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dial := func() (net.Conn, error) { return net.DialTimeout("tcp", p.Addr(), time.Second) }

	open, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(open); err != nil {
		t.Fatalf("forwarding: %v", err)
	}

	steps := []struct {
		name      string
		apply     func() error
		dialFails bool
		// tripErr checks a round trip on a new connection (when dialing works).
		tripErr func(error) bool
		// oldConnDies: the connection opened while forwarding is dropped.
		oldConnDies bool
	}{
		{"cut", func() error { p.Cut(); return nil }, true, nil, true},
		{"restore after cut", p.Restore, false, func(err error) bool { return err == nil }, false},
		{"hang", func() error { p.Hang(); return nil }, false, func(err error) bool {
			var ne net.Error
			return errors.As(err, &ne) && ne.Timeout()
		}, true},
		{"restore after hang", p.Restore, false, func(err error) bool { return err == nil }, false},
	}
	for _, st := range steps {
		if err := st.apply(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if st.oldConnDies {
			if err := roundTrip(open); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("%s: the open connection still answered or hung (%v), want it dropped", st.name, err)
			}
		}
		c, err := dial()
		if st.dialFails {
			if err == nil {
				c.Close()
				t.Errorf("%s: dial succeeded, want refused", st.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: dial: %v", st.name, err)
		}
		if err := roundTrip(c); !st.tripErr(err) {
			t.Errorf("%s: round trip error %v", st.name, err)
		}
		c.Close()
		if open, err = dial(); err != nil {
			t.Fatalf("%s: redial: %v", st.name, err)
		}
		if p.Mode() == faultproxy.Forward {
			if err := roundTrip(open); err != nil { // the proxy has taken it in
				t.Fatalf("%s: redialed connection: %v", st.name, err)
			}
		}
	}
}
