package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that a crash leaves either the old or the new content:
// temp file in the same directory, fsync, rename over the target, fsync the directory.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("memory: create dir %s: %w", dir, err)
	}
	tmp, err := writeTemp(dir, filepath.Base(path), data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("memory: rename into %s: %w", path, err)
	}
	return syncDir(dir)
}

// writeFileNew creates path with data atomically and fails with os.ErrExist instead of overwriting.
func writeFileNew(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("memory: create dir %s: %w", dir, err)
	}
	tmp, err := writeTemp(dir, filepath.Base(path), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	// link(2) refuses an existing target, which rename(2) would silently replace.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("memory: create %s: %w", path, os.ErrExist)
		}
		return fmt.Errorf("memory: link into %s: %w", path, err)
	}
	return syncDir(dir)
}

func writeTemp(dir, base string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("memory: temp file in %s: %w", dir, err)
	}
	name := f.Name()
	fail := func(op string, err error) (string, error) {
		_ = f.Close()
		_ = os.Remove(name)
		return "", fmt.Errorf("memory: %s %s: %w", op, name, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("fsync", err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail("chmod", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return "", fmt.Errorf("memory: close %s: %w", name, err)
	}
	return name, nil
}

// syncDir makes a rename durable; file systems that cannot fsync a directory are tolerated.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("memory: open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("memory: fsync dir %s: %w", dir, err)
	}
	return nil
}

// moveDir renames src to a fresh name under destParent (suffixing -2, -3 … when taken) and returns it.
// Archiving never overwrites or deletes an earlier archived copy.
func moveDir(src, destParent, base string) (string, error) {
	if err := os.MkdirAll(destParent, 0o755); err != nil {
		return "", fmt.Errorf("memory: create dir %s: %w", destParent, err)
	}
	for i := 1; i < 10000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		dest := filepath.Join(destParent, name)
		if _, err := os.Lstat(dest); err == nil {
			continue
		}
		if err := os.Rename(src, dest); err != nil {
			return "", fmt.Errorf("memory: move %s to %s: %w", src, dest, err)
		}
		if err := syncDir(destParent); err != nil {
			return dest, err
		}
		return dest, syncDir(filepath.Dir(src))
	}
	return "", fmt.Errorf("memory: no free archive name for %s in %s", base, destParent)
}
