package dev.seqvfs.protocol;

import java.util.Arrays;

/**
 * The identity a task acts with: effective user and group ids and the supplementary groups, as
 * {@code credentials(7)} describes them. SeqVFS models one id per kind (real, effective and
 * file-system ids are the same).
 *
 * <p>Immutable; thread-safe. {@code uid == 0} is root, who passes every read and write permission
 * check and every search check ({@code CAP_DAC_OVERRIDE}), and may execute a file only if some
 * execute bit is set.
 *
 * @param uid user id
 * @param gid primary group id
 * @param groups supplementary group ids (copied, sorted)
 */
@SuppressWarnings(
        "ArrayRecordComponent") // equals, hashCode and toString below use groups by content
public record Credentials(int uid, int gid, int[] groups) {
    /** The superuser, uid 0 and gid 0. */
    public static final Credentials ROOT = new Credentials(0, 0, new int[0]);

    /**
     * Copies and sorts the supplementary groups.
     *
     * @param uid user id
     * @param gid primary group id
     * @param groups supplementary group ids; {@code null} for none
     */
    public Credentials {
        groups = groups == null ? new int[0] : groups.clone();
        Arrays.sort(groups);
    }

    /**
     * Creates credentials with the supplementary groups given, if any.
     *
     * @param uid user id
     * @param gid primary group id
     * @param groups supplementary group ids (copied, sorted)
     * @return the credentials
     */
    public static Credentials of(int uid, int gid, int... groups) {
        return new Credentials(uid, gid, groups);
    }

    /** {@return whether these are root's credentials} */
    public boolean isRoot() {
        return uid == 0;
    }

    /**
     * {@return whether {@code g} is the primary group or a supplementary group}
     *
     * @param g a group id
     */
    public boolean inGroup(int g) {
        return g == gid || Arrays.binarySearch(groups, g) >= 0;
    }

    /** {@return a copy of the supplementary groups, sorted} */
    @Override
    public int[] groups() {
        return groups.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Credentials c
                && c.uid == uid
                && c.gid == gid
                && Arrays.equals(c.groups, groups);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * uid + gid) + Arrays.hashCode(groups);
    }

    @Override
    public String toString() {
        return "Credentials[uid="
                + uid
                + ", gid="
                + gid
                + ", groups="
                + Arrays.toString(groups)
                + "]";
    }
}
