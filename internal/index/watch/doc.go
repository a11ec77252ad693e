// Package watch is what the recall index knows changed since its last
// sync: a set of paths (a directory standing for its subtree) or
// "everything", and, on Linux, the inotify watcher that fills it, so a
// search reloads only what an event named instead of scanning every file.
// Elsewhere Start fails and the index scans by mtime.
//
// Map:
//   - changes.go   Changes, the set a sync takes and puts back on failure;
//     UnderAny, whether a path lies below a changed directory.
//   - watch_linux.go, watch_other.go  the inotify Watcher; its absence.
package watch
