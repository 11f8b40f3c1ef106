        Options with(Consumer<Options> change) {
            try {
                Options copy = (Options) clone();
                change.accept(copy);
                return copy;
            } catch (CloneNotSupportedException cloneable) {
                throw new AssertionError(cloneable);
            }
        }
