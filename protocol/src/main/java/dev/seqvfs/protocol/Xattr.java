package dev.seqvfs.protocol;

/**
 * Extended-attribute constants, with Linux's values ({@code <linux/xattr.h>}, {@code
 * <linux/limits.h>}, {@code xattr(7)}).
 */
public final class Xattr {
    /** {@code XATTR_CREATE}: fail with {@code EEXIST} if the attribute exists. */
    public static final int XATTR_CREATE = 0x1;

    /** {@code XATTR_REPLACE}: fail with {@code ENODATA} if the attribute does not exist. */
    public static final int XATTR_REPLACE = 0x2;

    /** {@code XATTR_NAME_MAX}: the longest name, in bytes of UTF-8 ({@code ERANGE} past it). */
    public static final int XATTR_NAME_MAX = 255;

    /** {@code XATTR_SIZE_MAX}: the largest value, in bytes ({@code E2BIG} past it). */
    public static final int XATTR_SIZE_MAX = 65536;

    /** The prefix of the {@code user} namespace, which unprivileged callers use. */
    public static final String USER_PREFIX = "user.";

    /** The prefix of the {@code trusted} namespace (root only: {@code CAP_SYS_ADMIN}). */
    public static final String TRUSTED_PREFIX = "trusted.";

    /** The prefix of the {@code security} namespace (writes root only, as with no LSM). */
    public static final String SECURITY_PREFIX = "security.";

    private Xattr() {}
}
