"""A griffe extension for the API reference: the package installs the folder
transforms/ as s2sad.transforms (pyproject.toml's package-dir), which griffe,
reading the source tree statically, cannot follow. Once s2sad is loaded, the
folder is loaded and attached as its member `transforms`, so names s2sad
re-exports from it (s2sad.S2sadError) resolve."""
import griffe


class AttachTransforms(griffe.Extension):
    def on_package(self, *, pkg, loader, **kwargs):
        if pkg.name != "s2sad" or "transforms" in pkg.members:
            return
        transforms = loader.load("transforms")
        pkg.set_member("transforms", transforms)
