package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// notFound says in the API's words what a route did not find: the store's
// own wording (which names the backend and its query) stays in the error
// chain for the log, not in the answer. Other errors pass unchanged.
func notFound(err error, what, id string, ns kgmem.Namespace) error {
	if !errors.Is(err, kgmem.ErrNotFound) {
		return err
	}
	return &echo.HTTPError{Code: http.StatusNotFound, Message: fmt.Sprintf("no %s with id %q in namespace %q", what, id, ns), Internal: err}
}

// recordsNotFound is the answer of a route naming several records when
// one of them does not exist.
func recordsNotFound(err error, ns kgmem.Namespace) error {
	if !errors.Is(err, kgmem.ErrNotFound) {
		return err
	}
	return &echo.HTTPError{Code: http.StatusNotFound, Message: fmt.Sprintf("a record in refs does not exist in namespace %q", ns), Internal: err}
}
