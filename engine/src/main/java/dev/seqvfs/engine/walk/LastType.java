package dev.seqvfs.engine.walk;

/**
 * What the final component of a parent walk is ({@code LAST_NORM} and friends in {@code
 * fs/namei.c}).
 */
public enum LastType {
    /** An ordinary name. */
    NORM,
    /** {@code "."}. */
    DOT,
    /** {@code ".."}. */
    DOTDOT,
    /** No final component: the path was {@code "/"} (or only slashes). */
    ROOT
}
