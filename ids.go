package kgmem

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a fresh random id with the given prefix, for example "fact_3f2a…".
func NewID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	return prefix + "_" + hex.EncodeToString(b[:])
}

// EntityID derives the id an entity gets when it is first created from name in ns.
// Deterministic ids make a re-run of the same ingest create the same entities.
func EntityID(ns Namespace, name string) string {
	return "ent_" + digest(string(ns), NormalizeName(name))
}
