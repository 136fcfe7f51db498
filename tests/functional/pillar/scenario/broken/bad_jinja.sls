x: {{ no_such_variable.attribute }}
