
    /** Scripts on a client the helper takes: the acquire and WAIT reach the client's connection through it. */
    record On(Object client, Scripts scripts) implements Scripts {
        @Override
        public Object run(String lua, List<String> keys, List<String> args) {
            return scripts.run(lua, keys, args);
        }
    }
