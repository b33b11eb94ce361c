//go:build unix && !linux

package confined

import "errors"

// Exchange fails with errors.ErrUnsupported: only Linux has renameat2.
func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	return errors.ErrUnsupported
}
