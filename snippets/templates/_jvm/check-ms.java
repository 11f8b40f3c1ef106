    static void checkMs(String name, long value, boolean positive) {
        if (value >= (positive ? 1 : 0)) return;
        String sign = positive ? "positive" : "non-negative";
        throw new IllegalArgumentException(name + " must be a " + sign + " integer of milliseconds, got " + value);
    }
