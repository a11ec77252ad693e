// Package identity owns who the agent and its users are: the agent's
// memory/about_me.md and each user's memory/users/<id>/about_user.md (the
// Python sidecar's location; the legacy memory/about_user.md is user
// "default", and a folder earlier somni versions mapped an id to is still
// read when its profile names that very id). The prompt shows them, the
// dreamer rewrites them (update_about_me, update_about_user), the MCP server
// lists them as resources and doctor checks them. It works over the memory
// store's files and lock (package memory: its boundary, write lock, clock,
// redaction and compare-and-swap write), as package sessionlog does.
//
// Files, by job:
//
//	identity.go   Profile, Files (Of: a store's identity files), where they
//	              live (ProfilePaths, UserProfilePath, UsersDir) and reading
//	              them (AboutMe, AboutUser, ProfileUserIDs)
//	update.go     writing them (UpdateAboutMe, UpdateAboutUser): the body
//	              replaced under the write lock by compare-and-swap, other keys
//	              kept, a profile in an older location moved to the current one
package identity
