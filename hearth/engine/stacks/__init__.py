"""Stacks at run time: the live stack, its actions, context, outputs and loading."""
