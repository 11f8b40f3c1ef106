        Kind kind;
