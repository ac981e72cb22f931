"""ember.nn: Module, Parameter, layers, init and functional."""
