    static void checkMs(String name, long value, boolean positive) {
        if (value < (positive ? 1 : 0)) {
            throw new IllegalArgumentException(
                    name + " must be a " + (positive ? "positive" : "non-negative") + " integer of milliseconds, got " + value);
        }
    }

    static String sha1(String lua) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(lua.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException missing) {
            throw new IllegalStateException("SHA-1 is part of every Java platform", missing);
        }
    }
