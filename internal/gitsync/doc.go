// Package gitsync keeps one memory on every machine: the data directory is
// a git repository, a remote (any git URL or path: GitHub, GitLab, Gitea, a
// bare repository on a NAS) holds branch main, and a round records this
// machine's changes, fetches, merges and pushes. The Markdown files are the
// truth; index.sqlite and the other machine-local files are ignored, and
// each machine's index follows what a round brings.
//
// The engine is the git command (os/exec), not a Go git library: a user's
// credential helpers, ssh agent and keys, proxies, ~/.ssh/config and host
// quirks work as they do for their own git, and `git merge` run by hand in
// the data dir merges memory files with the same driver
// (`somni-sidecar merge-file`, registered in the repository's config).
// Every call runs in the data dir (-C) with GIT_TERMINAL_PROMPT=0, LC_ALL=C
// for the messages read back, a timeout, and no controlling terminal, so a
// background sync never waits on a prompt; what git says on failure becomes
// one sentence with what to do (Error, Kind).
//
// What a round promises: nothing leaves the machine that the capture's
// secret scan (package redact) would have stopped: a changed file holding
// one is not committed and the round names it; a merge never leaves
// conflict markers: a path git still reports unmerged keeps this machine's
// text and the other's becomes a sibling entry <name>-conflict-<blob>; an
// entry archived on one machine and edited on the other is active with the
// edit on both; the work tree is only touched under the store's write lock
// (package memory), so a merge does not interleave with a compare-and-swap
// rewrite; a round killed at any point (git's own lock files left behind
// included) is completed by the next one.
//
// Map:
//
//	doc.go                          this map
//	session.go                      a command's view of a data dir: options, Configured, the round lock, the store's write lock
//	round.go                        Init, Round: record, fetch, merge, push with bounded retries
//	record.go                       recording local changes: staging, the secret scan of staged blobs and of outgoing commits
//	merge.go                        merging the remote's branch with the driver, settling what it left unmerged, SiblingPath
//	archive.go                      an archive on one side and an edit on the other: the edit wins
//	setup.go                        .gitignore, .gitattributes and the merge driver's registration (DriverCommand)
//	status.go                       Status and the state file of the last round
//	remote.go                       RemoteURL read from the config file, credentials left out of every URL shown
//	report.go                       Report: what a round did, in a line or two
//	recover.go                      after a kill: stale git lock files, an interrupted merge
//	git.go                          running git: environment, timeouts, output
//	explain.go                      git's failures as one sentence with what to do (Error, Kind)
//	proc_unix.go, proc_other.go     git in a session of its own, interrupted as a group
//	held_linux.go, held_other.go    whether a process holds a git lock file
package gitsync
