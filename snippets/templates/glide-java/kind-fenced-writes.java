«include:_jvm/kind-fenced-writes»
