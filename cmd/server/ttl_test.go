package main

import (
	"bytes"
	"net/http"
	"testing"
	"time"
)

// TestTTLSweeperDeletesExpiredItems: a server with --ttl-sweep-interval
// deletes an item whose TTL ran out on its own, and leaves a live one.
func TestTTLSweeperDeletesExpiredItems(t *testing.T) {
	url := startServe(t, t.TempDir(), "--ttl-sweep-interval", "50ms")
	put := func(key, ttl string) {
		t.Helper()
		body := `{"namespace":"ttl/sweep","key":"` + key + `","value":{"v":1},"ttl":` + ttl + `}`
		req, _ := http.NewRequest(http.MethodPut, url+"/v1/items", bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("put %s: %v %v", key, resp, err)
		}
		resp.Body.Close()
	}
	status := func(key string) int {
		t.Helper()
		resp, err := http.Get(url + "/v1/items?namespace=ttl/sweep&include_expired=true&refresh_ttl=false&key=" + key)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	put("gone", "0")
	put("live", "60")
	deadline := time.Now().Add(30 * time.Second)
	for status("gone") != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("the expired item was not swept within 30s")
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
	if st := status("live"); st != http.StatusOK {
		t.Errorf("the live item after the sweep: %d, want 200", st)
	}
}
