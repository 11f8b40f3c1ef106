«include:_js/fenced-writes»
