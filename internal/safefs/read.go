package safefs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Version identifies the bytes a read returned, for a later compare-and-swap:
// the file's identity and its content.
type Version struct {
	info fs.FileInfo // of the descriptor the bytes came from; nil ⇒ the file did not exist
	data []byte
}

// Exists reports whether the version is of an existing file.
func (v Version) Exists() bool { return v.info != nil }

// Info is the file info of the read (nil when the file did not exist).
func (v Version) Info() fs.FileInfo { return v.info }

// Data is the bytes read or written (the caller must not change them).
func (v Version) Data() []byte { return v.data }

// Missing is the version of a file that is not there yet: Replace with it
// creates the file and fails if someone else created it first.
var Missing = Version{}

// ReadFile reads the regular file p, at most limit bytes (ErrTooLarge past it).
func (f *FS) ReadFile(p string, limit int64) ([]byte, error) {
	data, _, err := f.ReadVersion(p, limit)
	return data, err
}

// ReadVersion is ReadFile that also returns what a later Replace compares against.
func (f *FS) ReadVersion(p string, limit int64) ([]byte, Version, error) {
	file, err := f.OpenRead(p)
	if err != nil {
		return nil, Version{}, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, Version{}, fmt.Errorf("safefs: stat %s: %w", p, err)
	}
	if info.Size() > limit {
		return nil, Version{}, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, info.Size(), limit)}
	}
	data, err := readAtMost(file, limit)
	if err != nil {
		return nil, Version{}, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return data, Version{info: info, data: data}, nil
}

// ReadHead reads at most n bytes from the start of the regular file p: a
// header, whatever the file's size.
func (f *FS) ReadHead(p string, n int) ([]byte, error) {
	file, err := f.OpenRead(p)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(file, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return buf[:m], nil
}

// OpenRead opens the regular file p for reading: non-blocking, so a FIFO
// never waits for a writer, and refused unless it is a regular file.
func (f *FS) OpenRead(p string) (*os.File, error) {
	r, rel, err := f.open("open", p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	file, err := r.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, mapErr("open", p, err)
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, fmt.Errorf("safefs: stat %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		file.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(info.Mode()))}
	}
	return file, nil
}

// Kind names what a file that is not a regular one is, for messages
// ("a FIFO", "a directory", "a symbolic link" …).
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}

// readAtMost reads the rest of r, failing when it holds more than limit bytes
// (the file grew after the size check).
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("%w: grew past %d bytes while read", ErrTooLarge, limit)
	}
	return buf.Bytes(), nil
}
