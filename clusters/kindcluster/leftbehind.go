package kindcluster

import (
	"errors"
	"fmt"
)

// LeftBehindError is part of a failed create's error when cleaning up after
// it failed too: some of what the create made is still on the host.
type LeftBehindError struct{ Cleanup error }

func (e *LeftBehindError) Error() string { return "cleaning up after it: " + e.Cleanup.Error() }

func (e *LeftBehindError) Unwrap() error { return e.Cleanup }

// LeftBehind reports whether err is a failed create that left something
// behind.
func LeftBehind(err error) bool {
	var lb *LeftBehindError
	return errors.As(err, &lb)
}

// CleanedUp is err, a failed create's, after cleanup has run: with the
// cleanup's own failure joined to it as a LeftBehindError.
func CleanedUp(err error, cleanup func() error) error {
	if cerr := cleanup(); cerr != nil {
		return fmt.Errorf("%w; %w", err, &LeftBehindError{Cleanup: cerr})
	}
	return err
}
