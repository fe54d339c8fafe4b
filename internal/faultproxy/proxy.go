// Package faultproxy is a loopback TCP proxy that tests put between a client
// and a real server (Milvus, Neo4j) to make the server fail on demand without
// touching it: Cut drops every connection and refuses new ones, Hang accepts
// connections but never answers (a server that stalls), Restore forwards
// again. The listening address stays the same throughout.
package faultproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Mode is what the proxy does with traffic.
type Mode int

// The proxy modes.
const (
	// Forward relays traffic to the target.
	Forward Mode = iota
	// Refuse drops every connection and refuses new ones (nothing listens).
	Refuse
	// Blackhole drops every connection and accepts new ones that never get an answer.
	Blackhole
)

// Proxy forwards one loopback address to a target. It is safe for concurrent use.
type Proxy struct {
	target string
	addr   string

	mu    sync.Mutex
	mode  Mode
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
	done  bool
}

// Start listens on 127.0.0.1 on a free port and forwards it to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{target: target, addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	return p, nil
}

// Addr is the proxy's address, host:port; clients dial it instead of the target.
func (p *Proxy) Addr() string { return p.addr }

// Mode returns the current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Cut drops every connection and refuses new ones until Restore.
func (p *Proxy) Cut() { p.set(Refuse) }

// Hang drops every connection; new ones are accepted but never answered
// until Restore.
func (p *Proxy) Hang() { p.set(Blackhole) }

// Restore forwards again. It fails when the address cannot be listened on
// again (another process took the port meanwhile).
func (p *Proxy) Restore() error { return p.setErr(Forward) }

func (p *Proxy) set(m Mode) { _ = p.setErr(m) }

func (p *Proxy) setErr(m Mode) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return errors.New("faultproxy: closed")
	}
	if m != Forward || p.mode != Forward {
		p.dropLocked()
	}
	p.mode = m
	switch {
	case m == Refuse && p.ln != nil:
		_ = p.ln.Close()
		p.ln = nil
	case m != Refuse && p.ln == nil:
		// Relisten on the same address; a just-closed port may need a moment.
		var err error
		deadline := time.Now().Add(5 * time.Second)
		for {
			var ln net.Listener
			if ln, err = net.Listen("tcp", p.addr); err == nil {
				p.ln = ln
				p.serve(ln)
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("faultproxy: relisten on %s: %w", p.addr, err)
			}
			time.Sleep(10 * time.Millisecond) // retry interval of a bounded poll, not a readiness wait
		}
	}
	return nil
}

// dropLocked closes every open connection.
func (p *Proxy) dropLocked() {
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// serve accepts on ln until it is closed.
func (p *Proxy) serve(ln net.Listener) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.handle(c)
		}
	}()
}

// handle relays one client connection, or parks it in Blackhole mode.
func (p *Proxy) handle(client net.Conn) {
	p.mu.Lock()
	mode := p.mode
	if p.done || mode == Refuse {
		p.mu.Unlock()
		_ = client.Close()
		return
	}
	p.conns[client] = struct{}{}
	p.mu.Unlock()
	if mode == Blackhole {
		return // held open, never answered, closed by the next mode change or Close
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			p.forget(client)
			return
		}
		p.mu.Lock()
		if p.mode != Forward || p.done {
			p.mu.Unlock()
			_ = server.Close()
			p.forget(client)
			return
		}
		p.conns[server] = struct{}{}
		p.mu.Unlock()
		var pipes sync.WaitGroup
		pipes.Add(2)
		relay := func(dst, src net.Conn) {
			defer pipes.Done()
			_, _ = io.Copy(dst, src)
			// One direction ended: end both, as a real peer's close would.
			_ = dst.Close()
			_ = src.Close()
		}
		go relay(server, client)
		go relay(client, server)
		pipes.Wait()
		p.forget(client)
		p.forget(server)
	}()
}

func (p *Proxy) forget(c net.Conn) {
	_ = c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Close stops the proxy and drops every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return nil
	}
	p.done = true
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	p.dropLocked()
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}
