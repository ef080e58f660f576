"""ADBench's objectives (github.com/microsoft/ADBench) as ADBench wrote them:
GMM and bundle adjustment from its Autograd tool, hand tracking (simple and
complicated) and LSTM from its PyTorch module, ported to numpy only where
they called autograd or torch (torch.cat -> np.concatenate, autograd's
primitive with defgrad -> s2sad.custom_vjp). `cases` gives small inputs of
the shapes ADBench's data files have."""
