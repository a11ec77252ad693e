//go:build !linux

package safefs

// swap renames tmp over the target. Without an exchange primitive the
// window between Replace's check and this rename stays open (microseconds);
// the check just before narrows it to that.
func (d *parent) swap(tmp string) (exchanged bool, err error) {
	return false, d.root.Rename(tmp, d.base)
}

// settle has nothing to wait for without an exchange: the rename leaves no
// displaced file to check.
func (d *parent) settle(string) {}
