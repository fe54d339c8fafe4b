package auth

// SharedKeys is a backend (a graph store) that keeps API keys for every
// server on it, so that a key created or revoked through one server holds on
// all; the server discovers it by type assertion (see kgmem's optional
// capabilities). A backend without it leaves the keys in each server's data
// directory (keys.db).
type SharedKeys interface {
	// Keys returns the key records kept in the backend's database.
	Keys() KeyRecords
}
